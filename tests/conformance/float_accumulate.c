/* accumulating floats in a loop (binary32 rounding as C's float) */
#include <stdio.h>
int main(void) {
    float s = 0.0f;
    int i;
    for (i = 1; i <= 100; i++) s += 1.0f / i;
    printf("%.4f\n", s);
    return 0;
}
