/* malloc of an array of structs */
#include <stdio.h>
#include <stdlib.h>
struct p { int x, y; };
int main(void) {
    struct p *ps = malloc(5 * sizeof(struct p));
    int i, s = 0;
    for (i = 0; i < 5; i++) { ps[i].x = i; ps[i].y = i * i; }
    for (i = 0; i < 5; i++) s += ps[i].x + ps[i].y;
    printf("%d %d\n", s, ps[4].y);
    free(ps);
    return 0;
}
