/* printf %f %e %g with widths and precisions */
#include <stdio.h>
int main(void) {
    float x = 1234.5f, y = 0.0625f;
    printf("[%f] [%.2f] [%10.3f] [%-10.1f]\n", x, x, y, y);
    printf("[%e] [%.3e] [%g] [%g]\n", x, y, x, y);
    return 0;
}
