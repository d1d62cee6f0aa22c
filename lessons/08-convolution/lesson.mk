# Lesson 08 links stb_image (Debian libstb-dev) into its demo only: the demo reads PNG/JPEG and writes
# PNG. The CPU reference's Gaussian uses exp() from libm.
DEMO_LIBS_08-convolution := -lstb -lm
LIBS_08-convolution_gpu := -lm
LIBS_08-convolution_sim := -lm
