// libneml2_mpi.so: MPI behind the C table of mpi_plugin.h. Links only the MPI C library (no
// torch, no libneml2.so); loaded by libneml2.so with dlopen when an MPI entry point is first used.
#include "mpi_plugin.h"

#include <mpi.h>

namespace
{
MPI_Comm &
handle(void * comm)
{
  return *static_cast<MPI_Comm *>(comm);
}

int
live()
{
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

int
init(int * argc, char *** argv, int * initialized_here)
{
  *initialized_here = 0;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return MPI_SUCCESS;
  int provided = 0;
  const int code = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  *initialized_here = code == MPI_SUCCESS;
  return code;
}

int
finalize()
{
  return live() ? MPI_Finalize() : MPI_SUCCESS;
}

void
error_string(int code, char * text, int capacity)
{
  char message[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, message, &length) != MPI_SUCCESS)
    length = 0;
  int n = 0;
  for (; n < length && n + 1 < capacity; ++n)
    text[n] = message[n];
  if (capacity > 0)
    text[n] = '\0';
}

int
comm_dup(const void * parent, void ** comm)
{
  auto * dup = new MPI_Comm(MPI_COMM_NULL);
  const int code =
      MPI_Comm_dup(parent ? *static_cast<const MPI_Comm *>(parent) : MPI_COMM_WORLD, dup);
  if (code != MPI_SUCCESS)
  {
    delete dup;
    *comm = nullptr;
    return code;
  }
  *comm = dup;
  return MPI_SUCCESS;
}

void
comm_free(void * comm)
{
  if (!comm)
    return;
  if (handle(comm) != MPI_COMM_NULL && live())
    MPI_Comm_free(&handle(comm));
  delete static_cast<MPI_Comm *>(comm);
}

int
placement(void * comm,
          int * rank,
          int * size,
          int * local_rank,
          int * local_size,
          int * smallest_local_size)
{
  const MPI_Comm c = handle(comm);
  int code = MPI_Comm_rank(c, rank);
  if (code == MPI_SUCCESS)
    code = MPI_Comm_size(c, size);
  MPI_Comm node = MPI_COMM_NULL;
  if (code == MPI_SUCCESS)
    code = MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node);
  if (code == MPI_SUCCESS)
    code = MPI_Comm_rank(node, local_rank);
  if (code == MPI_SUCCESS)
    code = MPI_Comm_size(node, local_size);
  if (code == MPI_SUCCESS)
    code = MPI_Allreduce(local_size, smallest_local_size, 1, MPI_INT, MPI_MIN, c);
  if (node != MPI_COMM_NULL)
    MPI_Comm_free(&node);
  return code;
}

int
allgather_int64(void * comm, const int64_t * mine, int count, int64_t * all)
{
  return MPI_Allgather(mine, count, MPI_INT64_T, all, count, MPI_INT64_T, handle(comm));
}

int
allgatherv_bytes(
    void * comm, const void * mine, int bytes, void * all, const int * counts, const int * displs)
{
  return MPI_Allgatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, handle(comm));
}

const neml2_mpi_plugin_table table{neml2_mpi_plugin_abi,
                                   live,
                                   init,
                                   finalize,
                                   error_string,
                                   comm_dup,
                                   comm_free,
                                   placement,
                                   allgather_int64,
                                   allgatherv_bytes};
} // namespace

extern "C" __attribute__((visibility("default"))) const neml2_mpi_plugin_table *
neml2_mpi_plugin()
{
  return &table;
}
