/* prefix and postfix ++ and -- */
#include <stdio.h>
int main(void) {
    int i = 5, a, b;
    a = i++;
    b = ++i;
    printf("%d %d %d\n", a, b, i);
    a = i--;
    b = --i;
    printf("%d %d %d\n", a, b, i);
    return 0;
}
