/* cpc-only: each process allocates and frees its own block */
#include <stdio.h>
#include <stdlib.h>
int sums[4];
int main(void) {
    int i;
    forall (i from 0 to 3) {
        int *b = malloc(5 * sizeof(int));
        int k;
        for (k = 0; k < 5; k++) b[k] = i + k;
        sums[i] = b[0] + b[4];
        free(b);
    }
    printf("%d %d %d %d\n", sums[0], sums[1], sums[2], sums[3]);
    return 0;
}
