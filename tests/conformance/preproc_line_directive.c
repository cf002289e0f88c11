/* #line renumbers the following lines for __LINE__ and renames the file for __FILE__ */
#include <stdio.h>
int main(void) {
    printf("%d\n", __LINE__);
#line 100
    printf("%d\n", __LINE__);
    printf("%d\n", __LINE__);
#line 7 "generated.y"
    printf("%s:%d\n", __FILE__, __LINE__);

    printf("%s:%d\n", __FILE__, __LINE__);
#line 50
    printf("%s:%d\n", __FILE__, __LINE__);
    return 0;
}
