/* fopen, fprintf, fclose, then fscanf back */
#include <stdio.h>
int main(void) {
    FILE *f = fopen("conf_tmp.txt", "w");
    int i, v, s = 0;
    for (i = 1; i <= 5; i++) fprintf(f, "%d\n", i * i);
    fclose(f);
    f = fopen("conf_tmp.txt", "r");
    while (fscanf(f, "%d", &v) == 1) s += v;
    fclose(f);
    printf("%d %d\n", s, fopen("no_such_file.txt", "r") == NULL);
    return 0;
}
