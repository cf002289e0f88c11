/* Ping-pong between ranks 0 and 1: for each size, 20 round trips of that many ints. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, size, k, r, n;
    int sizes[4] = {1, 256, 4096, 65536};
    int *buf;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buf = malloc(65536 * sizeof(int));
    for (k = 0; k < 4; k++) {
        n = sizes[k];
        buf[0] = 0;
        for (r = 0; r < 20; r++) {
            if (rank == 0) {
                buf[0]++;
                MPI_Send(buf, n, MPI_INT, 1, k, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_INT, 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                buf[0]++;
                MPI_Send(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) printf("pingpong %d ints: counter %d\n", n, buf[0]);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
