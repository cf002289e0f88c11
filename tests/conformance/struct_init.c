/* struct initialisers, nested braces */
#include <stdio.h>
struct point { int x, y; };
struct seg { struct point a, b; };
struct point origin = {0, 0};
int main(void) {
    struct point p = {3, -4};
    struct seg s = {{1, 2}, {5, 6}};
    printf("%d %d %d %d %d %d\n", p.x, p.y, s.a.y, s.b.x, origin.x, origin.y);
    return 0;
}
