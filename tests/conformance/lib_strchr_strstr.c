/* strchr, strrchr and strstr */
#include <stdio.h>
#include <string.h>
int main(void) {
    char *path = "a/b/c.txt";
    char *first = strchr(path, '/');
    char *last = strrchr(path, '/');
    printf("%s %s %d\n", first, last + 1, (int)(last - path));
    printf("%s %d\n", strstr("hypercube", "cube"), strstr("ring", "mesh") == NULL);
    printf("%d\n", strchr("abc", 'z') == NULL);
    return 0;
}
