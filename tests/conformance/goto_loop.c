/* goto building a loop */
#include <stdio.h>
int main(void) {
    int i = 0, s = 0;
top:
    s += i;
    i++;
    if (i <= 10) goto top;
    printf("%d\n", s);
    return 0;
}
