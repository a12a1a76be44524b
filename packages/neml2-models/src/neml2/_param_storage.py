"""Storage names of parameters: the names NEML2 v3 gives them in ``named_parameters()``.

v3 stores a parameter under a short name (``R``, ``eta``, ``sy``) where it differs from the HIT
option key (``saturated_hardening``, ``reference_stress``, ``yield_stress``); a ``parameters``
list stores token ``i`` as ``<storage name>_<i>``. :data:`V3_STORAGE` maps registered type →
option key → storage name for every such option; options not listed are stored under the
schema's ``attr`` or, without one, the option key. Model code keeps reading parameters by the
schema target (``_get_param("saturated_hardening")``) through ``Model._param_alias``; every name a
user sees (``named_parameters``, ``set_parameter``, ``neml2-compile -p``, compiled metadata, the
eager bridge, pyzag) is the storage name.
"""

from __future__ import annotations

from typing import Any

__all__ = ["V3_STORAGE", "storage_name"]

#: registered type → option key → storage name (established against NEML2 v3.1.0).
V3_STORAGE: dict[str, dict[str, str]] = {
    "AdvectiveStress": {"coefficient": "coeff"},
    "ArrheniusParameter": {"activation_energy": "Q", "reference_value": "p0"},
    "AvramiErofeevNucleation": {"coef": "k", "order": "n"},
    "BenzeggaghKenaneFullSeparation": {
        "critical_separation": "delta_c",
        "mode_II_fracture_toughness": "GIIc",
        "mode_I_fracture_toughness": "GIc",
        "mode_mixity": "beta",
        "penalty_stiffness": "K",
        "shear_strength": "S",
    },
    "BilinearTraction": {
        "critical_separation": "delta_c",
        "full_separation": "delta_f",
        "penalty_stiffness": "K",
    },
    "BrooksCoreyCapillaryPressure": {"exponent": "p", "threshold_pressure": "Pt"},
    "BurgersElement": {
        "kelvin_modulus": "EK",
        "kelvin_viscosity": "etaK",
        "maxwell_modulus": "EM",
        "maxwell_viscosity": "etaM",
    },
    "CamanhoDavilaCriticalSeparation": {
        "mode_mixity": "beta",
        "normal_strength": "N",
        "penalty_stiffness": "K",
        "shear_strength": "S",
    },
    "ChemicalGibbsFreeEnergyDifference": {
        "chemical_potentials": "_mu_names",
        "equilibrium_potentials": "_mu_eq_names",
    },
    "ContractingGeometry": {"coef": "k", "order": "n"},
    "CurrentConcentration": {
        "initial_concentration": "x0",
        "precipitate_concentrations": "_xp_names",
    },
    "DiffusionLimitedReaction": {"diffusion_coefficient": "D"},
    "EffectiveSaturation": {"max_fraction": "phi_max", "residual_saturation": "Sr"},
    "EffectiveVolume": {"densities": "_rho_names", "reference_mass": "M"},
    "ExponentialLawPermeability": {
        "reference_permeability": "K0",
        "reference_porosity": "phi0",
        "scale": "a",
    },
    "GTNYieldFunction": {"yield_stress": "sy"},
    "GeneralElasticity": {"elastic_stiffness_tensor": "T"},
    "HermiteSmoothStep": {"lower_bound": "x0", "upper_bound": "x1"},
    "IdealSolutionVolumetricDrivingForce": {
        "equilibrium_concentrations": "_x_eq_names",
        "gas_constant": "R_g",
        "weights": "_w_names",
    },
    "KelvinVoigtElement": {"modulus": "K", "viscosity": "eta"},
    "KineticFactor": {"avogadro_number": "N_a", "molar_volume": "V_m"},
    "KocksMeckingActivationEnergy": {"shear_modulus": "mu"},
    "KocksMeckingFlowViscosity": {"shear_modulus": "mu"},
    "KocksMeckingRateSensitivity": {"shear_modulus": "mu"},
    "KocksMeckingYieldStress": {"shear_modulus": "mu"},
    "KozenyCarmanPermeability": {"reference_permeability": "K0", "reference_porosity": "phi0"},
    "LinearDashpot": {"viscosity": "eta"},
    "LinearIsotropicHardening": {"hardening_modulus": "K"},
    "LinearKinematicHardening": {"hardening_modulus": "H"},
    "MRPParameterToVariable": {"from": "param"},
    "MillerIndexParameterToVariable": {"from": "param"},
    "NucleationBarrierAndCriticalRadius": {
        "molar_volume": "V_m",
        "surface_energy": "gamma",
        "total_gibbs_free_energy_difference": "dg_total",
    },
    "NucleationFluxMagnitude": {"boltzmann_constant": "k", "nucleation_site_density": "N0"},
    "OlevskySinteringStress": {"particle_radius": "r", "surface_tension": "gamma"},
    "OrthotropicLinearTraction": {
        "normal_stiffness": "Kn",
        "penalty_stiffness": "Kpen",
        "tangential_stiffness": "Kt",
    },
    "PerzynaPlasticFlowRate": {"exponent": "n", "reference_stress": "eta"},
    "PowerDegradationFunction": {"power": "p"},
    "PowerLawFullSeparation": {
        "critical_separation": "delta_c",
        "mode_II_fracture_toughness": "GIIc",
        "mode_I_fracture_toughness": "GIc",
        "mode_mixity": "beta",
        "penalty_stiffness": "K",
        "shear_strength": "S",
    },
    "PowerLawPermeability": {
        "exponent": "p",
        "reference_permeability": "K0",
        "reference_porosity": "phi0",
    },
    "PrecipitateVolumeFraction": {"radius": "R"},
    "ProjectedDiffusivitySum": {
        "concentration_differences": "_dx_names",
        "diffusivities": "_D_names",
    },
    "R2ParameterToVariable": {"from": "param"},
    "RateLimitedPrecipitateGrowthRate": {
        "concentration_difference": "dx",
        "diffusivity": "D",
        "equilibrium_concentration": "x_eq",
        "radius": "R",
    },
    "RationalDegradationFunction": {"power": "p"},
    "SFFKPrecipitationGrowthRate": {
        "gas_constant": "R_g",
        "gibbs_free_energy_difference": "dg",
        "radius": "R",
    },
    "SR2ParameterToVariable": {"from": "param"},
    "SSR4ParameterToVariable": {"from": "param"},
    "SalehaniIraniTraction": {
        "normal_characteristic_length": "delta_u0_n",
        "normal_strength": "Tmax_n",
        "penalty_stiffness": "Kpen",
        "shear_strength": "Tmax_t",
        "tangential_characteristic_length": "delta_u0_t",
    },
    # ``exponent`` → ``_p`` as observed with v3.1.0
    "ScalarPNorm": {"exponent": "_p", "weights": "weight"},
    "ScalarParameterToVariable": {"from": "param"},
    "SemiInfiniteCoordinateTransform": {"shift": "s"},
    "SlopeSaturationVoceIsotropicHardening": {
        "initial_hardening_rate": "theta0",
        "saturated_hardening": "R",
    },
    "SwellingAndPhaseChangeDeformationJacobian": {
        "phase_fraction": "c",
        "reference_volume_difference": "dOmega",
        "swelling_coefficient": "alpha",
    },
    "SymmetricHermiteInterpolation": {"lower_bound": "x0", "upper_bound": "x1"},
    "ThermalDeformationJacobian": {"CTE": "alpha", "reference_temperature": "T0"},
    "ThermalEigenstrain": {"CTE": "alpha", "reference_temperature": "T0"},
    "VecParameterToVariable": {"from": "param"},
    "VoceIsotropicHardening": {"saturated_hardening": "R", "saturation_rate": "d"},
    "VolumeChangeEigenstrain": {"reference_volume": "V0"},
    "WR2ParameterToVariable": {"from": "param"},
    "WiechertElement": {
        "equilibrium_modulus": "Einf",
        "modulus_1": "E1",
        "modulus_2": "E2",
        "viscosity_1": "eta1",
        "viscosity_2": "eta2",
    },
    "YieldFunction": {"yield_stress": "sy"},
    "ZeldovichFactor": {
        "avogadro_number": "N_a",
        "boltzmann_constant": "k",
        "molar_volume": "V_m",
        "surface_energy": "gamma",
    },
    "ZenerElement": {
        "equilibrium_modulus": "Einf",
        "maxwell_modulus": "EM",
        "maxwell_viscosity": "etaM",
    },
}


def storage_name(cls: type, field: Any) -> str:
    """Name parameter field ``field`` of ``cls`` is stored under (list fields: the ``_<i>`` base).

    ``cls``'s registered name selects the :data:`V3_STORAGE` row (subclasses inherit it); without
    an entry the schema target (``attr`` or option key) is used.
    """
    row = V3_STORAGE.get(getattr(cls, "_registered_name", ""), {})
    name: str = row.get(field.name, field.target)
    return name
