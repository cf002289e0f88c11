/* memmove handles overlapping ranges */
#include <stdio.h>
#include <string.h>
int main(void) {
    int a[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int i;
    memmove(a + 2, a, 5 * sizeof(int));
    for (i = 0; i < 8; i++) printf("%d", a[i]);
    printf("\n");
    return 0;
}
