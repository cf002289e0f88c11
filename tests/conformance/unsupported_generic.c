/* _Generic is named as not supported */
int main(void) { int x = _Generic(1, int: 2, default: 3); return x; }
