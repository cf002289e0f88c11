/* a 2-D array allocated as rows of pointers */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int rows = 3, cols = 4, i, j, s = 0;
    int **m = malloc(rows * sizeof(int *));
    for (i = 0; i < rows; i++) {
        m[i] = malloc(cols * sizeof(int));
        for (j = 0; j < cols; j++) m[i][j] = i * cols + j;
    }
    for (i = 0; i < rows; i++) for (j = 0; j < cols; j++) s += m[i][j];
    printf("%d %d\n", s, m[2][3]);
    for (i = 0; i < rows; i++) free(m[i]);
    free(m);
    return 0;
}
