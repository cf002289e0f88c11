/* The work of scripts/bench-turns.sh: four workers, each sieving below 50 000 four times
 * over in an array of its own frame. The script puts `#define SHAPE k` before this file:
 * 0, main runs the four one after the other (one process); 1, the four run as processes
 * on four processors (a 2x2 mesh, every processor busy in every quantum); 2, the four
 * run as processes sharing one processor (round robin, each in turns of a quantum). */
#include "cpc.h"
#define N 50000
#define ROUNDS 4
#if SHAPE == 2
arch mesh A[1][1];
phyArch mesh P[1][1];
#else
arch mesh A[2][2];
phyArch mesh P[2][2];
#endif
void w(int id) {
    char composite[N];
    int i, j, r, count;
    for (r = 0; r < ROUNDS; r++) {
        for (i = 0; i < N; i++)
            composite[i] = 0;
        count = 0;
        for (i = 2; i < N; i++) {
            if (!composite[i]) {
                count++;
                for (j = i + i; j < N; j += i)
                    composite[j] = 1;
            }
        }
    }
    printf("%d: %d\n", id, count);
}
void main() {
#if SHAPE == 0
    w(0);
    w(1);
    w(2);
    w(3);
#else
    int k;
    forall (k from 0 to 3) w(k);
#endif
}
