/* array initialisers: full, partial (rest zero), inferred size, nested */
#include <stdio.h>
int main(void) {
    int a[5] = {1, 2, 3};
    int b[] = {4, 5, 6, 7};
    int m[2][3] = {{1, 2, 3}, {4, 5, 6}};
    int i;
    for (i = 0; i < 5; i++) printf("%d ", a[i]);
    printf("| ");
    for (i = 0; i < 4; i++) printf("%d ", b[i]);
    printf("| %d %d\n", m[0][2], m[1][0]);
    return 0;
}
