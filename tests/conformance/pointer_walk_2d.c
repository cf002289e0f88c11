/* a pointer walking a 2-D array row by row */
#include <stdio.h>
int main(void) {
    int m[3][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    int *p = &m[0][0];
    int i, s = 0;
    for (i = 0; i < 9; i++) s += p[i] * (i % 2 ? -1 : 1);
    printf("%d %d\n", s, *(p + 4));
    return 0;
}
