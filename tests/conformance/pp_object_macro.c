/* object-like macros, macros using macros */
#include <stdio.h>
#define WIDTH 8
#define HEIGHT (WIDTH / 2)
#define AREA WIDTH * HEIGHT
int main(void) {
    printf("%d %d %d\n", WIDTH, HEIGHT, AREA);
    return 0;
}
