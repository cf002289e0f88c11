/* limits.h for int and char */
#include <stdio.h>
#include <limits.h>
int main(void) {
    printf("%d %d %d\n", INT_MAX, INT_MIN, CHAR_BIT);
    printf("%d\n", INT_MAX + INT_MIN);
    return 0;
}
