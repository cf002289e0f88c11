/* structs inside structs, arrays inside structs */
#include <stdio.h>
struct point { int x, y; };
struct rect { struct point lo, hi; int tags[3]; };
int main(void) {
    struct rect r;
    r.lo.x = 1; r.lo.y = 2; r.hi.x = 11; r.hi.y = 22;
    r.tags[0] = 7; r.tags[2] = 9;
    printf("%d %d %d\n", (r.hi.x - r.lo.x) * (r.hi.y - r.lo.y), r.tags[0], r.tags[2]);
    return 0;
}
