/* malloc an array, use it, free it */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 10, i, s = 0;
    int *a = malloc(n * sizeof(int));
    if (a == NULL) return 1;
    for (i = 0; i < n; i++) a[i] = i + 1;
    for (i = 0; i < n; i++) s += a[i];
    free(a);
    printf("%d\n", s);
    return 0;
}
