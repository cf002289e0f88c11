/* a later designated initialiser of the same element wins, also when it is zero */
#include <stdio.h>
int squares[] = {[1] = 9, [1] = 3, 4, [5] = 25};
int z[3] = {[0] = 5, [0] = 0, 7};
int main(void) {
    int local[4] = {[2] = 1, [2] = 8, [0] = 6, [0] = 0};
    printf("%d %d %d %d\n", (int)(sizeof squares / sizeof squares[0]), squares[1], squares[2], squares[5]);
    printf("%d %d %d\n", z[0], z[1], z[2]);
    printf("%d %d %d %d\n", local[0], local[1], local[2], local[3]);
    return 0;
}
