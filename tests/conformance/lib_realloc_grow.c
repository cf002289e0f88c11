/* realloc keeps the contents when it grows a block */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int cap = 2, n = 0, i;
    int *v = malloc(cap * sizeof(int));
    for (i = 0; i < 20; i++) {
        if (n == cap) { cap *= 2; v = realloc(v, cap * sizeof(int)); }
        v[n++] = i * i;
    }
    printf("%d %d %d %d\n", n, cap, v[7], v[19]);
    free(v);
    return 0;
}
