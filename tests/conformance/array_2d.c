/* two-dimensional arrays in row-major order */
#include <stdio.h>
int main(void) {
    int m[3][4];
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 4; j++)
            m[i][j] = 10 * i + j;
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 4; j++) printf("%3d", m[i][j]);
        printf("\n");
    }
    return 0;
}
