/* three-dimensional arrays */
#include <stdio.h>
int main(void) {
    int t[2][3][4];
    int i, j, k, s = 0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++)
            for (k = 0; k < 4; k++)
                t[i][j][k] = i * 100 + j * 10 + k;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++)
            for (k = 0; k < 4; k++)
                s += t[i][j][k];
    printf("%d %d %d\n", t[1][2][3], t[0][1][2], s);
    return 0;
}
