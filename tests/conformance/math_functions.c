/* math.h: values exact in binary32 */
#include <stdio.h>
#include <math.h>
int main(void) {
    printf("%.1f %.1f %.1f %.1f\n", sqrt(16.0f), fabs(-2.5f), floor(2.75f), ceil(2.25f));
    printf("%.1f %.1f %.1f\n", pow(2.0f, 10.0f), exp(0.0f), log(1.0f));
    printf("%.1f %.1f %d\n", sin(0.0f), cos(0.0f), abs(-9));
    return 0;
}
