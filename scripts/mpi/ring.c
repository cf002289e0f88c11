/* A token goes around all ranks 10 times; each rank adds its rank to it. */
#include <stdio.h>
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, size, lap, token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (lap = 0; lap < 10; lap++) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) printf("ring of %d ranks, 10 laps: token %d\n", size, token);
    MPI_Finalize();
    return 0;
}
