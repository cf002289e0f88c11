/* compound literals: unnamed objects assigned, passed and taken the address of */
#include <stdio.h>
struct point { int x, y; };
int norm1(struct point p) { return (p.x < 0 ? -p.x : p.x) + (p.y < 0 ? -p.y : p.y); }
int main(void) {
    struct point p;
    struct point *q;
    int i, s = 0;
    p = (struct point){3, -4};
    q = &(struct point){.y = 7};
    for (i = 0; i < 3; i++) s += norm1((struct point){i, i * 2});
    printf("%d %d %d %d %d\n", p.x, p.y, q->x, q->y, s);
    printf("%d %d\n", (struct point){5, 6}.y, (int){42});
    return 0;
}
