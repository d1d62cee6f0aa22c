# Lesson 03 links stb_image (Debian libstb-dev) into its demo only: the demo reads PNG/JPEG and writes PNG.
# The grader and the benchmark do not need it.
DEMO_LIBS_03-image-grayscale := -lstb
