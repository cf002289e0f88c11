/* stdint.h's 32-bit types */
#include <stdio.h>
#include <stdint.h>
int main(void) {
    int32_t a = INT32_MAX;
    intptr_t b = 12;
    printf("%d %d\n", a, (int)b);
    return 0;
}
