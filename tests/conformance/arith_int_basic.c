/* int arithmetic: + - * / % with C's truncation toward zero */
#include <stdio.h>
int main(void) {
    int a = 17, b = 5;
    printf("%d %d %d %d %d\n", a + b, a - b, a * b, a / b, a % b);
    printf("%d %d %d %d\n", -a / b, -a % b, a / -b, a % -b);
    return 0;
}
