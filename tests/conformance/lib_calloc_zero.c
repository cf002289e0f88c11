/* calloc gives zeroed memory */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int *a = calloc(8, sizeof(int));
    int i, s = 0;
    for (i = 0; i < 8; i++) s += a[i];
    a[3] = 4;
    printf("%d %d\n", s, a[3]);
    free(a);
    return 0;
}
