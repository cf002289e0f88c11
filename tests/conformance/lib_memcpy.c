/* memcpy copies ints and structs */
#include <stdio.h>
#include <string.h>
struct rec { int a; float b; };
int main(void) {
    int src[5] = {1, 2, 3, 4, 5}, dst[5];
    struct rec r = {7, 1.5f}, s;
    memcpy(dst, src, sizeof src);
    memcpy(&s, &r, sizeof r);
    printf("%d %d %d %.1f\n", dst[0], dst[4], s.a, s.b);
    return 0;
}
