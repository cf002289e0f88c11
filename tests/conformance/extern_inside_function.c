/* extern inside a function refers to the file-scope object */
#include <stdio.h>
int level = 3;
int get(void) {
    extern int level;
    return level * 2;
}
int main(void) {
    int level = 100;
    printf("%d %d\n", get(), level);
    return 0;
}
