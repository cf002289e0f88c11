/* an enumerator as an array size and loop bound */
#include <stdio.h>
enum { ROWS = 3, COLS = 4, CELLS = ROWS * COLS };
int main(void) {
    int g[ROWS][COLS];
    int flat[CELLS];
    int i, j;
    for (i = 0; i < ROWS; i++)
        for (j = 0; j < COLS; j++) { g[i][j] = i * COLS + j; flat[i * COLS + j] = g[i][j]; }
    printf("%d %d\n", flat[CELLS - 1], g[2][1]);
    return 0;
}
