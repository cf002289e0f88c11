/* structs passed and returned by value */
#include <stdio.h>
struct vec { int x, y; };
struct vec add(struct vec a, struct vec b) {
    struct vec r;
    r.x = a.x + b.x;
    r.y = a.y + b.y;
    a.x = 1000;
    return r;
}
int main(void) {
    struct vec u, v, w;
    u.x = 1; u.y = 2; v.x = 10; v.y = 20;
    w = add(u, v);
    printf("%d %d %d\n", w.x, w.y, u.x);
    return 0;
}
