/* conversions between int and float: truncation toward zero */
#include <stdio.h>
int main(void) {
    float f = 7.75f;
    int i = f;
    int j = -f;
    float g = 3;
    printf("%d %d %f %d\n", i, j, g, (int)(f * 2));
    printf("%f\n", (float)7 / 2);
    printf("%d\n", 7 / 2);
    return 0;
}
