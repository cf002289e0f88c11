/* #include "file" from the source's folder, with an include guard */
#include <stdio.h>
#include "inc/shapes.h"
#include "inc/shapes.h"
int main(void) {
    printf("%d %d\n", SIDES_SQUARE, perimeter(SIDES_SQUARE, 5));
    return 0;
}
