/* designated initialisers for struct members, in any order; the rest is zero */
#include <stdio.h>
struct cfg { int rows, cols, depth; char tag; };
int main(void) {
    struct cfg a = {.cols = 8, .rows = 4};
    struct cfg b = {.cols = 3, 1, 2};
    printf("%d %d %d %d\n", a.rows, a.cols, a.depth, a.tag);
    printf("%d %d %d %d\n", b.rows, b.cols, b.depth, b.tag);
    return 0;
}
