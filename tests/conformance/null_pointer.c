/* NULL compares unequal to every object's address */
#include <stdio.h>
#include <stddef.h>
int g;
int main(void) {
    int *p = NULL;
    char *s = "";
    printf("%d %d %d %d\n", p == NULL, &g != NULL, s != NULL, !p);
    return 0;
}
