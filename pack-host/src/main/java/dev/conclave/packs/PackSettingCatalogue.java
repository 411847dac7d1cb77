package dev.conclave.packs;

import dev.conclave.settings.Setting;
import dev.conclave.settings.SettingCatalogue;

import java.util.List;

/** The pack host's settings for the catalogue of every module's settings (found through ServiceLoader). */
public final class PackSettingCatalogue implements SettingCatalogue {

  @Override
  public List<Setting<?>> settings() {
    return SettingCatalogue.declaredIn(PackSettings.class);
  }
}
