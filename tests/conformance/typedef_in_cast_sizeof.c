/* typedef names in casts */
#include <stdio.h>
typedef int whole;
int main(void) {
    float f = 9.99f;
    printf("%d\n", (whole)f);
    return 0;
}
