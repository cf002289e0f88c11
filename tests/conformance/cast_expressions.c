/* casts between int, char and float */
#include <stdio.h>
int main(void) {
    int i = 321;
    float f = -2.5f;
    printf("%d %d %c %.1f\n", (int)f, (char)i, (char)(65 + 1), (float)i / 2);
    return 0;
}
