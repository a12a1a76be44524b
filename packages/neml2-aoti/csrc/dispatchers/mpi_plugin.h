// The C interface between libneml2.so and its MPI plugin, libneml2_mpi.so (private; never in a
// public header).
//
// libneml2.so links no MPI library. MPIScheduler and MPIEnvironment reach MPI through this table,
// which libneml2_mpi.so (built when CMake finds an MPI, linked to that MPI's C library) exports as
// neml2_mpi_plugin(). libneml2.so loads the plugin with dlopen the first time an MPI entry point
// is used, so a host that never uses MPI never needs an MPI library, and a host with another MPI
// can point NEML2_MPI_PLUGIN at a plugin built against it. Only C types cross: a communicator is
// an opaque handle owned by the plugin; every call returns 0 or an MPI error code.
#pragma once

#include <cstdint>

extern "C"
{
  /// Bumped whenever the table changes; libneml2.so refuses a plugin with another value.
  constexpr int neml2_mpi_plugin_abi = 1;

  struct neml2_mpi_plugin_table
  {
    int abi;
    /// 1 when MPI is initialized and not finalized, else 0.
    int (*live)();
    /// MPI_Init_thread(MPI_THREAD_FUNNELED) unless MPI is initialized; *initialized_here = 1
    /// when this call initialized it.
    int (*init)(int * argc, char *** argv, int * initialized_here);
    /// MPI_Finalize when MPI is live.
    int (*finalize)();
    /// MPI's text for an error code, at most `capacity` bytes with the terminating NUL.
    void (*error_string)(int code, char * text, int capacity);
    /// A duplicate of *parent (an MPI_Comm), or of MPI_COMM_WORLD when parent is null.
    int (*comm_dup)(const void * parent, void ** comm);
    /// Frees a handle from comm_dup (a no-op once MPI is finalized).
    void (*comm_free)(void * comm);
    /// Rank and size in `comm`; rank and size among the ranks of this node; the smallest node
    /// size over `comm` (collective).
    int (*placement)(void * comm,
                     int * rank,
                     int * size,
                     int * local_rank,
                     int * local_size,
                     int * smallest_local_size);
    /// MPI_Allgather of `count` int64 per rank.
    int (*allgather_int64)(void * comm, const int64_t * mine, int count, int64_t * all);
    /// MPI_Allgatherv of bytes.
    int (*allgatherv_bytes)(void * comm,
                            const void * mine,
                            int bytes,
                            void * all,
                            const int * counts,
                            const int * displacements);
  };

  /// The plugin's one exported symbol.
  using neml2_mpi_plugin_entry = const neml2_mpi_plugin_table * (*)();
}
