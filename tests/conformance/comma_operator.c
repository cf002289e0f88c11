/* the comma operator evaluates left to right, yields the right value */
#include <stdio.h>
int main(void) {
    int a, b, c;
    c = (a = 2, b = a * 3, a + b);
    printf("%d %d %d\n", a, b, c);
    for (a = 0, b = 10; a < b; a += 3, b -= 2)
        ;
    printf("%d %d\n", a, b);
    return 0;
}
