/* a typedef of a typedef, and a pointer to one */
#include <stdio.h>
typedef int base_t;
typedef base_t level_t;
typedef level_t *level_ptr;
int main(void) {
    level_t v = 41;
    level_ptr p = &v;
    (*p)++;
    printf("%d\n", v);
    return 0;
}
