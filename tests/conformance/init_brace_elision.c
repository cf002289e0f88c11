/* brace elision: a flat list fills nested arrays and structs in order */
#include <stdio.h>
struct point { int x, y; };
int grid[2][3] = {1, 2, 3, 4, 5};
struct point pts[] = {1, 2, 3, 4, 5};
int main(void) {
    int m[2][2][2] = {1, 2, 3, 4, {5, 6}};
    printf("%d %d %d\n", grid[0][2], grid[1][1], grid[1][2]);
    printf("%d %d %d %d\n", (int)(sizeof pts / sizeof pts[0]), pts[1].y, pts[2].x, pts[2].y);
    printf("%d %d %d %d\n", m[0][1][1], m[1][0][0], m[1][0][1], m[1][1][0]);
    return 0;
}
