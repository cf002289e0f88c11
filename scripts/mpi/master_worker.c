/* Rank 0 hands out 100 tasks to the workers; each worker returns task*task + 1 with the
   task as tag; the master takes results in whatever order they come (MPI_Probe on any
   source), answers each with the next task or a stop (tag 0), and prints the total. */
#include <stdio.h>
#include <mpi.h>
#define TASKS 100
int main(int argc, char **argv) {
    int rank, size, next = 1, done = 0, w, x, result;
    long total = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (w = 1; w < size; w++) {
            x = next <= TASKS ? next++ : 0;
            MPI_Send(&x, 1, MPI_INT, w, x, MPI_COMM_WORLD);
        }
        while (done < TASKS) {
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Recv(&result, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            total += result;
            done++;
            x = next <= TASKS ? next++ : 0;
            MPI_Send(&x, 1, MPI_INT, st.MPI_SOURCE, x, MPI_COMM_WORLD);
        }
        printf("master-worker, %d workers: %d tasks, total %ld\n", size - 1, done, total);
    } else {
        while (1) {
            MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == 0) break;
            result = x * x + 1;
            MPI_Send(&result, 1, MPI_INT, 0, x, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
