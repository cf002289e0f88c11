/* Each rank sums i*i over its share of 1..100000 (long), then MPI_Reduce to rank 0 and
   MPI_Allreduce; the result is n(n+1)(2n+1)/6. */
#include <stdio.h>
#include <mpi.h>
int main(int argc, char **argv) {
    int rank, size;
    long i, n = 100000, part = 0, sum = 0, all = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = rank + 1; i <= n; i += size) part += i * i;
    MPI_Reduce(&part, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&part, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("sum of squares to %ld: reduce %ld allreduce %ld (closed form %ld)\n", n, sum, all,
                          n * (n + 1) * (2 * n + 1) / 6);
    MPI_Finalize();
    return 0;
}
