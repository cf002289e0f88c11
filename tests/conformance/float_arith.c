/* float arithmetic in binary32 with exactly representable values */
#include <stdio.h>
int main(void) {
    float a = 1.5f, b = 0.25f;
    printf("%f %f %f %f\n", a + b, a - b, a * b, a / b);
    printf("%.2f %.0f %.3f\n", -a, a * 4, b / 8);
    return 0;
}
