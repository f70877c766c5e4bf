//===- test_layer_mask.cpp - A tensor's layer, and the order of names -----===//
//
// quantize --layer-mask looks a tensor's entry up by the layer index in its
// name, and calibrate writes entry i for the i-th name in natural order: if
// either rule slips, rotated activations meet unrotated weights with no
// error, so both are pinned here.
//
//===----------------------------------------------------------------------===//

#include "weights/checkpoint/layer_mask.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace mxf::weights {
namespace {

TEST(LayerMask, TheFirstNumberBetweenDotsIsTheLayer) {
  EXPECT_EQ(layerIndexOf("model.layers.7.self_attn.q_proj.weight"), std::optional<size_t>(7));
  EXPECT_EQ(layerIndexOf("model.layers.31.mlp.experts.127.down_proj.weight"),
            std::optional<size_t>(31));
  EXPECT_EQ(layerIndexOf("transformer.h.0.attn.c_proj.weight"), std::optional<size_t>(0));
  EXPECT_EQ(layerIndexOf("12.weight"), std::optional<size_t>(12));
  EXPECT_EQ(layerIndexOf("model.layers.012.q.weight"), std::optional<size_t>(12));
  // Digits inside a part are no index; neither is a part of 10+ digits.
  EXPECT_EQ(layerIndexOf("lm_head.weight"), std::nullopt);
  EXPECT_EQ(layerIndexOf("model.layer7.q_proj.weight"), std::nullopt);
  EXPECT_EQ(layerIndexOf("model.fp8.weight"), std::nullopt);
  EXPECT_EQ(layerIndexOf("model.1234567890.weight"), std::nullopt);
  EXPECT_EQ(layerIndexOf(""), std::nullopt);
  EXPECT_EQ(modelLayerCount({"m.embed.weight", "m.layers.3.q.weight", "m.layers.10.k.weight"}),
            11u);
  EXPECT_EQ(modelLayerCount({"lm_head.weight"}), 0u);
}

TEST(LayerMask, NamesSortWithNumbersAsNumbers) {
  const std::vector<std::string> ordered = {
      "L.0",  "L.1",         "L.2",         "L.9",  "L.10",     "L.11", "L.100",
      "L.a",  "layers.2.mlp", "layers.2.q", "layers.10", "x007", "x7b",  "x8"};
  std::vector<std::string> shuffled = ordered;
  const unsigned seed = std::random_device{}();
  std::printf("[ seed     ] %u\n", seed);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(seed));
  std::sort(shuffled.begin(), shuffled.end(),
            [](const std::string &a, const std::string &b) { return naturalNameLess(a, b); });
  EXPECT_EQ(shuffled, ordered);
  // A strict weak order: irreflexive, and the same number spelled two ways
  // still ordered one way.
  EXPECT_FALSE(naturalNameLess("L.10", "L.10"));
  EXPECT_NE(naturalNameLess("L.01", "L.1"), naturalNameLess("L.1", "L.01"));
  // The negative control: byte order puts L.10 before L.2.
  EXPECT_LT(std::string("L.10"), std::string("L.2"));
  EXPECT_TRUE(naturalNameLess("L.2", "L.10"));
}

TEST(LayerMask, AMaskOfAnotherLengthIsRefusedNamingBoth) {
  LayerMask mask{"mask.npy", {1, 0, 1}};
  EXPECT_TRUE(checkMaskFitsModel(mask, 3).ok());
  Status longer = checkMaskFitsModel(mask, 4);
  ASSERT_FALSE(longer.ok());
  EXPECT_NE(longer.message().find("has 3 entries"), std::string::npos) << longer.message();
  EXPECT_NE(longer.message().find("layers 0..3 (4)"), std::string::npos) << longer.message();
  EXPECT_FALSE(checkMaskFitsModel(mask, 0).ok());
  EXPECT_EQ(mask.rotatedLayers(), (std::vector<size_t>{0, 2}));
}

} // namespace
} // namespace mxf::weights
