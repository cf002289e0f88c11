/* nested designators continue with the member after the designated one */
#include <stdio.h>
struct point { int x, y; };
struct seg { struct point a, b; int w; };
int main(void) {
    struct seg s = {.a.y = 2, 3, .w = 9};
    struct seg t = {.b = {.y = 4}, .a.x = 1, 5};
    struct point ps[3] = {[1].y = 6, [2] = {7, 8}};
    printf("%d %d %d %d %d\n", s.a.x, s.a.y, s.b.x, s.b.y, s.w);
    printf("%d %d %d %d %d\n", t.a.x, t.a.y, t.b.x, t.b.y, t.w);
    printf("%d %d %d %d\n", ps[0].x, ps[1].y, ps[2].x, ps[2].y);
    return 0;
}
