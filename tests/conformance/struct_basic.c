/* struct declaration, member access, assignment of members */
#include <stdio.h>
struct point { int x; int y; };
int main(void) {
    struct point p;
    p.x = 3;
    p.y = 4;
    printf("%d %d %d\n", p.x, p.y, p.x * p.x + p.y * p.y);
    return 0;
}
