"""KWN (Kampmann-Wagner numerical) precipitation models: thermodynamic driving forces, classical
nucleation theory (barrier, critical radius, Zeldovich and kinetic factors, nucleation flux),
precipitate growth rates and the precipitate volume fraction of a size distribution (the size
bins are a sub-batch axis). One module per family; registered on import."""
