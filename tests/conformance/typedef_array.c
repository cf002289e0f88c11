/* typedef of an array type */
#include <stdio.h>
typedef int row[4];
int main(void) {
    row r = {1, 2, 3, 4};
    row grid[2];
    int i, s = 0;
    for (i = 0; i < 4; i++) { grid[0][i] = r[i]; grid[1][i] = r[i] * 10; }
    for (i = 0; i < 4; i++) s += grid[1][i];
    printf("%d %d\n", s, grid[0][3]);
    return 0;
}
