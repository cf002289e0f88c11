/* M_PI from math.h */
#include <stdio.h>
#include <math.h>
int main(void) {
    float r = 2.0f;
    printf("%.2f\n", (float)M_PI * r * r);
    return 0;
}
