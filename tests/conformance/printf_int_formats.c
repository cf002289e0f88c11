/* printf integer conversions, widths, flags */
#include <stdio.h>
int main(void) {
    printf("[%d] [%5d] [%-5d] [%05d] [%i]\n", 42, 42, 42, 42, -7);
    printf("[%x] [%X] [%8x] [%c] [%%]\n", 255, 255, 4096, 'Q');
    printf("[%+d] [%+d]\n", 5, -5);
    return 0;
}
