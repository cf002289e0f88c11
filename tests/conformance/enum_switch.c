/* enumerators as case labels */
#include <stdio.h>
typedef enum { NORTH, EAST, SOUTH, WEST } dir;
dir turn_right(dir d) {
    switch (d) {
    case NORTH: return EAST;
    case EAST: return SOUTH;
    case SOUTH: return WEST;
    default: return NORTH;
    }
}
int main(void) {
    dir d = NORTH;
    int i;
    for (i = 0; i < 5; i++) { printf("%d ", d); d = turn_right(d); }
    printf("\n");
    return 0;
}
