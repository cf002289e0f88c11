/* typedef names for scalars and pointers */
#include <stdio.h>
typedef int count_t;
typedef float real;
typedef char *string;
int main(void) {
    count_t n = 3;
    real r = 1.5f;
    string s = "typed";
    printf("%d %.1f %s\n", n, r * n, s);
    return 0;
}
